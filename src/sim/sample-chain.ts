import type { ChainOptionsInput } from './options.js'

/**
 * The options that wrote the committed sample chain, `data/chain.jsonl` (data/README.md shows
 * the same as a `generate` command; a test holds the two and the file's SHA-256 together).
 * Seed 50 is the first from 1 whose 2,000 `switching` blocks visit all six regimes, spend at
 * least 150 blocks congested and stay under 15 MB (congested blocks are the large ones). Epochs
 * of 400 blocks give five; the first ends its blocks with state checkpoints, like old history.
 *
 * `serve` regenerates the chain from these when the file is not there (an installed package
 * does not ship it).
 *
 * @example [...chainLines(SAMPLE_CHAIN)].join('') // the bytes of data/chain.jsonl
 */
export const SAMPLE_CHAIN = Object.freeze({
  blocks: 2000,
  seed: 50,
  scenario: 'switching',
  epoch_blocks: 400,
  checkpoint_epochs: 1,
} as const satisfies ChainOptionsInput)
