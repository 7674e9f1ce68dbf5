export { type Classification, loadClassifications, SURVIVOR_CLASSES, type SurvivorClass } from './classes.js';
export { type Judged, judge } from './judge.js';
export { describeCode, instrumentServer, type Mutant, mutantKey } from './mutants.js';
export { printReport, type RecallReport, type Score, type Survivor, summarize } from './report.js';
export { type RecallOptions, runRecall, schemathesisCommand } from './run.js';
export { DEFAULT_SAMPLE_SEED, sampleMutants } from './sample.js';
