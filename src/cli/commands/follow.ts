import { UsageError } from '../errors.js'
import type { Command } from '../io.js'

/** Placeholder until the command lands; fails loudly rather than pretending. */
export const run: Command = async () => {
  throw new UsageError('follow is not built yet')
}
