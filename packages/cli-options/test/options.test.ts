import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConfigError,
  type ConfigOf,
  integer,
  oneOf,
  option,
  optionsHelp,
  optionsOf,
  parseCommandLine,
  readOptions,
  repeatable,
  subcommandOf,
  switchFlag,
  text,
  url,
} from '../src/index.js';

const port = option({
  flag: 'port',
  env: 'APP_PORT',
  parser: integer(0, 65535),
  default: '3000',
  help: 'TCP port',
});

/** A small command's options: every form of flag, a group, a secret and a computed default. */
const DECLARATION = {
  port,
  publicUrl: option({
    flag: 'public-url',
    env: 'APP_PUBLIC_URL',
    parser: url(['http:', 'https:']),
    default: { shown: 'http://localhost:<port>', from: (value) => `http://localhost:${value(port)}` },
    help: 'where clients reach it',
  }),
  stateless: option({ flag: 'stateless', env: 'APP_STATELESS', parser: switchFlag(), help: 'keep nothing' }),
  headers: option({ flag: 'header', parser: repeatable(text()), help: 'a header to send' }),
  store: {
    kind: option({
      flag: 'store',
      parser: oneOf(['memory', 'disk']),
      default: 'memory',
      help: 'where to keep',
    }),
    password: option({
      flag: 'store-password',
      env: 'APP_STORE_PASSWORD',
      parser: integer(0, 9),
      secret: true,
      help: 'a digit',
    }),
  },
};

/** The configuration of a command line and environment, or the problems reported. */
function read(argv: string[], env: Record<string, string> = {}) {
  const { flags, positionals } = parseCommandLine(argv, DECLARATION);
  try {
    return { config: readOptions(DECLARATION, flags, env), positionals };
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { problems: (error as ConfigError).problems, positionals };
  }
}

describe('reading options', () => {
  it('types the configuration after the declaration, groups as nested objects', () => {
    type Config = ConfigOf<typeof DECLARATION>;
    expectTypeOf<Config>().toEqualTypeOf<{
      port: number;
      publicUrl: string;
      stateless: boolean;
      headers: string[];
      store: { kind: 'memory' | 'disk'; password: number | undefined };
    }>();
    expect(optionsOf(DECLARATION).map((o) => o.spec.flag)).toEqual([
      'port',
      'public-url',
      'stateless',
      'header',
      'store',
      'store-password',
    ]);
  });

  it('has defaults, computed ones from the options they follow', () => {
    expect(read([]).config).toEqual({
      port: 3000,
      publicUrl: 'http://localhost:3000',
      stateless: false,
      headers: [],
      store: { kind: 'memory', password: undefined },
    });
    expect(read([], { APP_PORT: '4000' }).config?.publicUrl).toBe('http://localhost:4000');
  });

  it('takes a flag over its variable, an empty variable as unset', () => {
    expect(read(['--port', '1'], { APP_PORT: '2' }).config?.port).toBe(1);
    expect(read([], { APP_PORT: '2' }).config?.port).toBe(2);
    expect(read([], { APP_PORT: '' }).config?.port).toBe(3000);
    expect(read(['--port=5']).config?.port).toBe(5);
  });

  it('reads a switch without taking the next argument, and from its variable', () => {
    expect(read(['--stateless', 'platform'])).toMatchObject({
      config: { stateless: true },
      positionals: ['platform'],
    });
    expect(read(['--stateless=false']).config?.stateless).toBe(false);
    expect(read([], { APP_STATELESS: 'yes' }).config?.stateless).toBe(true);
  });

  it('gathers a repeatable flag in order, values with commas and dashes as given', () => {
    expect(read(['--header', 'A: 1, 2', '--header', '-B: 3']).config?.headers).toEqual(['A: 1, 2', '-B: 3']);
  });

  it('reports every problem at once, naming the flag or the variable and what is allowed', () => {
    expect(
      read(['--port', 'eighty', '--colour', 'blue', '--store', 'cloud'], { APP_STORE_PASSWORD: '42' })
        .problems,
    ).toEqual([
      'unknown flag --colour',
      '--port must be an integer from 0 to 65535, got "eighty"',
      '--store must be one of memory, disk, got "cloud"',
      // A secret is never repeated.
      'APP_STORE_PASSWORD (--store-password) must be an integer from 0 to 9',
    ]);
  });

  it('says a flag needs a value when it is given none, where "true" is no value it takes', () => {
    expect(read(['--stateless', '--port']).problems).toEqual([
      '--port needs a value: an integer from 0 to 65535',
    ]);
    expect(read(['--port', '80', '--stateless']).config?.stateless).toBe(true);
  });

  it('refuses a default that its own parser refuses, naming it', () => {
    const broken = { size: option({ flag: 'size', parser: integer(1, 2), default: '3', help: 'size' }) };
    expect(() => readOptions(broken, new Map(), {})).toThrow(
      'the default of --size must be an integer from 1 to 2',
    );
  });

  it('checks options that go together', () => {
    const cert = option({ flag: 'cert', env: 'CERT', parser: text(), help: 'certificate' });
    const key = option({ flag: 'key', parser: text(), help: 'key' });
    const rules = { together: [[cert, key]] };
    expect(() => readOptions({ cert, key }, new Map([['cert', 'c']]), {}, rules)).toThrow(
      '--cert and --key go together: --key is not set',
    );
    expect(() => readOptions({ cert, key }, new Map([['key', 'k']]), {}, rules)).toThrow(
      '--cert and --key go together: --cert (CERT) is not set',
    );
    expect(readOptions({ cert, key }, new Map(), { CERT: 'c' }, { together: [] })).toEqual({
      cert: 'c',
      key: undefined,
    });
  });
});

describe('help', () => {
  it('gives each option a line: flag, variable, meaning with choices, default', () => {
    const help = optionsHelp(DECLARATION);
    expect(help.split('\n')).toHaveLength(6);
    expect(help).toMatch(/^ {2}--port +APP_PORT +TCP port \(default 3000\)$/m);
    expect(help).toMatch(/^ {2}--header +a header to send \(repeatable\)$/m);
    expect(help).toMatch(/^ {2}--store +where to keep \(memory\|disk\) \(default memory\)$/m);
    // The columns line up, a blank variable where an option has none.
    const lines = help.split('\n');
    expect(
      new Set(lines.map((line) => (line.indexOf('APP_') < 0 ? 'none' : line.indexOf('APP_')))).size,
    ).toBe(2);
    expect(lines[0]?.indexOf('TCP port')).toBe(lines[3]?.indexOf('a header to send'));
  });

  it('has no variable column when no option has a variable', () => {
    const flagsOnly = { junit: option({ flag: 'junit', parser: text(), help: 'JUnit report file' }) };
    expect(optionsHelp(flagsOnly)).toBe(`  ${'--junit'.padEnd(26)} JUnit report file`);
  });
});

describe('command lines', () => {
  it('splits off a subcommand the command line starts with', () => {
    expect(subcommandOf(['platform', '--url', 'x'], ['platform', 'site'])).toEqual({
      command: 'platform',
      args: ['--url', 'x'],
    });
    expect(subcommandOf(['--url', 'x'], ['platform', 'site'])).toEqual({
      command: undefined,
      args: ['--url', 'x'],
    });
    expectTypeOf(subcommandOf([], ['platform', 'site']).command).toEqualTypeOf<
      'platform' | 'site' | undefined
    >();
  });

  it("keeps the command's own flags beside the declared ones", () => {
    const { flags, positionals, help } = parseCommandLine(
      ['list', '--json', '-h', '--port', '1'],
      DECLARATION,
      {
        json: { type: 'boolean' },
      },
    );
    expect(Object.fromEntries(flags)).toEqual({ json: true, port: '1' });
    expect(positionals).toEqual(['list']);
    expect(help).toBe(true);
  });

  it('answers --help and -h for every command, anywhere before --, and never as a flag to read', () => {
    for (const argv of [['--help'], ['site', '-h'], ['--port', '1', '--help']]) {
      const { flags, help } = parseCommandLine(argv, DECLARATION);
      expect(help, argv.join(' ')).toBe(true);
      expect(flags.has('help'), argv.join(' ')).toBe(false);
    }
    const { help, positionals } = parseCommandLine(['run', '--', '--help'], DECLARATION);
    expect(help).toBe(false);
    expect(positionals).toEqual(['run', '--help']);
    expect(readOptions(DECLARATION, parseCommandLine(['-h'], DECLARATION).flags, {})).toBeDefined();
  });
});
