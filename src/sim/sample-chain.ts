/**
 * The options that generate the sample chain, `data/chain.jsonl` (see data/README.md): the same
 * as `ledger-gas generate --blocks 2000 --seed 42 --scenario mixed --epoch-blocks 400
 * --checkpoint-epochs 1`. `serve` regenerates the chain from these when the file is not there
 * (an installed package does not ship it).
 *
 * @example for (const { block } of generateChain(SAMPLE_CHAIN)) store.appendBlock(block)
 */
export const SAMPLE_CHAIN = Object.freeze({
  blocks: 2000,
  seed: 42,
  scenario: 'mixed',
  epoch_blocks: 400,
  checkpoint_epochs: 1,
} as const)
