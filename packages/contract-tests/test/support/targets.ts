// A run as `contract-tests <api>` builds it, without the command line: the API's Target (src/targets) turns
// flags into the bundle, the clients and phases of its own, and leaves out the checks that do not apply.
import { CHECK_NAMES, type PhaseName, type RunOptions, TARGETS } from '../../src/index.js';
import type { FlagValues } from '../../src/targets/target.js';
import { Throttle } from '../../src/throttle.js';

/** The options of runContractTests for `contract-tests <api> --base-url <baseUrl> <flags>`. */
export async function runOptionsOf(
  api: string,
  baseUrl: string,
  flags: FlagValues,
  log: (line: string) => void,
  phases?: readonly PhaseName[],
): Promise<Omit<RunOptions, 'target' | 'seed'>> {
  const target = TARGETS[api];
  if (!target) throw new Error(`no target ${api}`);
  const { inapplicableChecks, ...run } = await target.connect(flags, {
    baseUrl,
    throttle: new Throttle(),
    phases,
    log,
  });
  return {
    ...run,
    api,
    checks: CHECK_NAMES.filter((check) => !inapplicableChecks?.has(check)),
    ...(phases ? { phases } : {}),
    log,
  };
}
