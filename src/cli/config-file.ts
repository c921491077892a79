import { readFile } from 'node:fs/promises'
import { resolveCalibratedConfig, type CalibratedConfig } from '../core/calibrated/calibrated-config.js'
import { resolveConfig, type EstimatorConfig } from '../core/config.js'
import { InvalidConfigError } from '../core/errors.js'
import { UsageError } from './errors.js'

/** Reads an estimator config JSON file (Aptos key names); no path → the defaults. */
export async function loadConfigFile(path: string | undefined): Promise<EstimatorConfig> {
  if (path === undefined) return resolveConfig()
  return resolveIn(path, await readJsonFile(path, 'config file'), (json) => resolveConfig(json as never))
}

/**
 * Reads a calibrated-estimator config JSON file (`{"regular": {"k": 3, "q": 0.9}, "window":
 * 1000, "learning_rate": …}`, any subset); no path → the defaults.
 */
export async function loadCalibratedConfigFile(path: string | undefined): Promise<CalibratedConfig> {
  if (path === undefined) return resolveCalibratedConfig()
  return resolveIn(path, await readJsonFile(path, 'calibrated config file'), (json) => resolveCalibratedConfig(json as never))
}

async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${what} ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

/** Resolves a config read from `path`; a bad key's error names the file too. */
function resolveIn<T>(path: string, json: unknown, resolve: (json: unknown) => T): T {
  try {
    return resolve(json)
  } catch (error) {
    if (error instanceof InvalidConfigError) throw new InvalidConfigError(error.key, `${error.message.slice(error.message.indexOf(': ') + 2)} (in ${path})`)
    throw error
  }
}
