// What the commands (`contract-tests platform|site`, `replay`) share: where they write.

/** Where a command writes: its output, and its usage and problems. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};
