import { readFile } from 'node:fs/promises'
import { resolveConfig, type EstimatorConfig } from '../core/config.js'
import { InvalidConfigError } from '../core/errors.js'
import { UsageError } from './errors.js'

/** Reads an estimator config JSON file (Aptos key names); no path → the defaults. */
export async function loadConfigFile(path: string | undefined): Promise<EstimatorConfig> {
  if (path === undefined) return resolveConfig()
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read config file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`config file ${path} is not valid JSON: ${(error as Error).message}`)
  }
  try {
    return resolveConfig(json as never)
  } catch (error) {
    if (error instanceof InvalidConfigError) throw new InvalidConfigError(error.key, `${error.message.slice(error.message.indexOf(': ') + 2)} (in ${path})`)
    throw error
  }
}
