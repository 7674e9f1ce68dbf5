// The APIs the CLI can test, by the name a command line gives them.
import { platformTarget } from './platform-target.js';
import { siteTarget } from './site-target.js';
import type { Target } from './target.js';

export const TARGETS: Readonly<Record<string, Target>> = {
  [platformTarget.api]: platformTarget,
  [siteTarget.api]: siteTarget,
};
