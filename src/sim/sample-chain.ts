import type { ChainOptionsInput } from './options.js'

/**
 * The options that wrote the committed sample chain, `data/chain.jsonl` (data/README.md shows
 * the same as a `generate` command; a test holds the two and the file's SHA-256 together).
 * `switching` visits every regime; 2,000 blocks of it stay under 15 MB. Epochs of 400 blocks
 * give five, and the first one ends its blocks with state checkpoints, like old history.
 */
export const SAMPLE_CHAIN = Object.freeze({
  blocks: 2000,
  seed: 42,
  scenario: 'switching',
  epoch_blocks: 400,
  checkpoint_epochs: 1,
} as const satisfies ChainOptionsInput)
