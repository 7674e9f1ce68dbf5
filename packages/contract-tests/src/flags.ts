// Command-line flags as users write them: `--client-secret "$SECRET"` takes the next argument as the value
// even when it starts with a dash — generated secrets and application passwords may (base64url has `-`),
// and node's parseArgs refuses such a value as "ambiguous" unless it is written `--client-secret=-…`.

/** `--name value` rewritten as `--name=value` for each string flag, so that any value is taken as it is. */
export function valuesJoined(
  argv: readonly string[],
  options: Readonly<Record<string, { type: 'string' | 'boolean' }>>,
): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    // After `--` everything is an argument, not a flag.
    if (arg === '--') return [...joined, ...argv.slice(index)];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (
      name !== undefined &&
      Object.hasOwn(options, name) &&
      options[name]!.type === 'string' &&
      index + 1 < argv.length
    ) {
      joined.push(`${arg}=${argv[index + 1]}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}
