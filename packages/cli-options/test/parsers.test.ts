import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  boolean,
  duration,
  integer,
  list,
  matching,
  oneOf,
  parseDuration,
  pemCertificates,
  pemPrivateKey,
  Refused,
  repeatable,
  seconds,
  switchFlag,
  text,
  url,
} from '../src/index.js';

describe('value parsers', () => {
  it('parses durations', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('10h')).toBe(36_000_000);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('250')).toBe(250);
    expect(parseDuration('soon')).toBeUndefined();
    expect(duration(1000).parse('999')).toBeInstanceOf(Refused);
  });

  it('reads a decimal number of seconds as milliseconds, 0 only when allowed', () => {
    expect(seconds().parse('1.5')).toBe(1500);
    expect(seconds().parse('.25')).toBe(250);
    expect(seconds().parse('0')).toBe(0);
    expect(seconds({ aboveZero: true }).parse('0.0')).toBeInstanceOf(Refused);
    expect(seconds({ aboveZero: true }).parse('0.001')).toBe(1);
    for (const given of ['1e3', '-1', '1s', '', 'x'])
      expect(seconds().parse(given), given).toBeInstanceOf(Refused);
    expect(seconds({ aboveZero: true }).allowed).toBe('a number of seconds above 0');
  });

  it('checks integers against their bounds', () => {
    expect(integer(1, 10).parse(' 7 ')).toBe(7);
    for (const given of ['0', '11', '-1', '2.5', '1e1', ''])
      expect(integer(1, 10).parse(given)).toBeInstanceOf(Refused);
  });

  it('accepts the usual spellings of a boolean, as a value or a switch', () => {
    for (const parser of [boolean(), switchFlag()]) {
      expect(['true', 'YES', '1', 'on'].map((given) => parser.parse(given))).toEqual([
        true,
        true,
        true,
        true,
      ]);
      expect(['false', 'No', '0', 'off'].map((given) => parser.parse(given))).toEqual([
        false,
        false,
        false,
        false,
      ]);
      expect(parser.parse('maybe')).toBeInstanceOf(Refused);
    }
    expect([boolean().form, boolean().unset]).toEqual(['value', undefined]);
    expect([switchFlag().form, switchFlag().unset]).toEqual(['switch', false]);
  });

  it('checks a URL and its protocol, keeping the text as given', () => {
    const web = url(['http:', 'https:']);
    expect(web.parse('https://API.example/x/')).toBe('https://API.example/x/');
    expect(web.map((given) => new URL(given).href).parse('https://API.example')).toBe('https://api.example/');
    for (const given of ['ftp://files.example', 'localhost:3000', 'not a url']) {
      expect(web.parse(given)).toBeInstanceOf(Refused);
    }
    expect(web.allowed).toBe('a URL starting http:// or https://');
  });

  it('reads comma-separated lists item by item', () => {
    const schedule = list(duration(), 'durations', 1);
    expect(schedule.parse('1s, 2m')).toEqual([1000, 120_000]);
    expect(schedule.parse('1s,soon')).toBeInstanceOf(Refused);
    expect(schedule.parse(' , ')).toBeInstanceOf(Refused);
    expect(list(text(), 'hosts').parse(',a, b,')).toEqual(['a', 'b']);
    expect(list(text(), 'hosts').unset).toEqual([]);
  });

  it('reads a repeatable flag one item per text, commas and all', () => {
    const headers = repeatable(matching(/^[^:]+:/, "'Name: value'"));
    expect(headers.form).toBe('repeated');
    expect(headers.unset).toEqual([]);
    expect(headers.allowed).toBe("'Name: value'");
    expect(headers.parse('Accept: a, b')).toEqual(['Accept: a, b']);
    expect(headers.parse('no colon')).toBeInstanceOf(Refused);
  });

  it('takes one of its choices exactly, and lists them', () => {
    expect(oneOf(['json', 'pretty']).parse('pretty')).toBe('pretty');
    expect(oneOf(['json', 'pretty']).parse('Pretty')).toBeInstanceOf(Refused);
    expect(oneOf(['json', 'pretty']).choices).toEqual(['json', 'pretty']);
  });

  it('keeps what a parser accepts through map, converting the value', () => {
    const seconds = duration(1000).map((ms) => ms / 1000);
    expect(seconds.parse('2m')).toBe(120);
    expect(seconds.parse('1ms')).toBeInstanceOf(Refused);
    expect(seconds.allowed).toBe(duration(1000).allowed);
    expect(switchFlag().map((on) => (on ? 'on' : 'off')).form).toBe('switch');
  });

  describe('PEM files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-options-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };

    it('reads certificates and keys, saying why a file is refused', () => {
      const cert = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
      const key = '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n';
      expect(pemCertificates().parse(file('cert.pem', cert))).toBe(cert);
      expect(pemPrivateKey().parse(file('key.pem', key))).toBe(key);
      expect(pemCertificates().parse(file('text.pem', 'hello'))).toEqual(
        new Refused('it holds no PEM certificate'),
      );
      expect(pemPrivateKey().parse(file('cert-as-key.pem', cert))).toEqual(
        new Refused('it holds no PEM private key'),
      );
      const encrypted = file('encrypted.pem', '-----BEGIN ENCRYPTED PRIVATE KEY-----\n');
      expect((pemPrivateKey().parse(encrypted) as Refused).detail).toMatch(/the key is encrypted/);
      expect((pemCertificates().parse(join(dir, 'missing.pem')) as Refused).detail).toMatch(/ENOENT/);
    });
  });
});
