// A run as `contract-tests <api>` builds it, without the command line: the API's Target (src/targets) turns
// its options into the bundle, the clients and phases of its own, and leaves out the checks that do not apply.
import { readOptions } from '@platform-api/cli-options';
import { CHECK_NAMES, type PhaseName, type RunOptions, TARGETS } from '../../src/index.js';
import { Throttle } from '../../src/throttle.js';

/** The options of runContractTests for `contract-tests <api> --base-url <baseUrl> <flags>`. */
export async function runOptionsOf(
  api: string,
  baseUrl: string,
  /** Flags by name, as a command line gives them (`true` for a switch). */
  flags: Record<string, string | true>,
  log: (line: string) => void,
  phases?: readonly PhaseName[],
): Promise<Omit<RunOptions, 'target' | 'seed'>> {
  const target = TARGETS[api];
  if (!target) throw new Error(`no target ${api}`);
  const options = readOptions(target.options, new Map(Object.entries(flags)), {});
  const { inapplicableChecks, ...run } = await target.connect(options as never, {
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
