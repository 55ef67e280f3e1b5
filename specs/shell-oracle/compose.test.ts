/**
 * The oracle property on generated command lines: compositions of separators, the real wrappers
 * (with and without options), quoting (single, double, ANSI-C, backslashes), substitutions,
 * process substitutions, subshells, groups, `bash -c` scripts and redirections around stand-in
 * programs run in the real bash, and the engine must account for every program that ran.
 * A fixed seed and a bounded number of commands keep it repeatable; runs go a few at a time.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeMisses, runOracle, type OracleRun } from './oracle.js';
import { pooled } from './pool.js';
import { createSandbox, type Sandbox } from './sandbox.js';

const SEED = 20261201;
const COMMANDS = 150;
const PROGRAMS = ['rm', 'git', 'touch', 'curl', 'ls', 'cat', 'npm'];

/** Quotes a string for bash, one of several ways, so the shell's word is the string. */
function quoted(text: string, how: number): string {
  switch (how % 5) {
    case 0:
      return /^[A-Za-z0-9_./=:-]+$/.test(text) && text !== '' ? text : `'${text.replace(/'/g, `'\\''`)}'`;
    case 1:
      return `'${text.replace(/'/g, `'\\''`)}'`;
    case 2:
      return `"${text.replace(/["\\$`]/g, '\\$&')}"`;
    case 3:
      return `$'${[...text].map((ch) => (/[A-Za-z0-9]/.test(ch) ? `\\x${ch.charCodeAt(0).toString(16)}` : ch === "'" || ch === '\\' ? `\\${ch}` : ch)).join('')}'`;
    default:
      return [...text].map((ch) => `\\${ch}`).join('') || "''";
  }
}

const argText = fc.constantFrom('x', '-rf', '/', 'a b', "it's", 'status', 'push', '-n', '$HOME', '*', '"q"', '--', 'a;b');
const word = fc.tuple(argText, fc.nat(4)).map(([text, how]) => quoted(text, how));

/** A stand-in program with quoted arguments. */
const simple = fc.tuple(fc.constantFrom(...PROGRAMS), fc.nat(4), fc.array(word, { maxLength: 3 })).map(
  ([program, how, args]) => [how === 4 ? quoted(program, 1) : program, ...args].join(' '),
);

/** The real wrappers copied into the sandbox, with and without options. */
const wrapperPrefix = fc.constantFrom(
  'env ', 'env -i ', 'env -u HOME ', 'env FOO=1 ', 'env -- ', 'nice ', 'nice -n 5 ', 'nice -5 ', 'nohup ', 'timeout 5 ',
  'timeout -s KILL 5 ', 'timeout -k 1 5 ', 'setsid ', 'setsid -f ', 'flock /tmp/l ', 'stdbuf -oL ', 'stdbuf -o 0 ',
  'ionice -c 3 ', 'chrt -o 0 ', 'taskset -c 0 ', 'time -p ', 'command ', 'exec ', 'xargs ', 'xargs -0 ', 'FOO=1 ',
);

const redirection = fc.constantFrom('', '', ' > /dev/null', ' 2>&1', ' < /dev/null', ' >> /tmp/out', ' 2>/dev/null', ' &>/dev/null');

const command: fc.Arbitrary<string> = fc.letrec<{ cmd: string; list: string }>((tie) => ({
  cmd: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    simple,
    fc.tuple(fc.array(wrapperPrefix, { minLength: 1, maxLength: 3 }), simple).map(([ws, s]) => ws.join('') + s),
    fc.tuple(simple, tie('list')).map(([s, inner]) => `${s} "$(${inner})"`),
    fc.tuple(simple, tie('list')).map(([s, inner]) => `${s} $(${inner})`),
    fc.tuple(simple, tie('cmd')).map(([s, inner]) => `${s} \`${inner.replace(/[`\\$]/g, '\\$&')}\``),
    fc.tuple(simple, tie('list')).map(([s, inner]) => `${s} <(${inner})`),
    fc.tuple(simple, tie('list')).map(([s, inner]) => `${s} > >(${inner})`),
    tie('list').map((inner) => `(${inner})`),
    tie('list').map((inner) => `{ ${inner}; }`),
    fc.tuple(fc.constantFrom('bash -c ', 'nice bash -c ', 'env bash -c ', 'bash -e -c '), tie('list'), fc.nat(2)).map(
      ([shell, inner, how]) => shell + quoted(inner, how + 1),
    ),
    fc.tuple(tie('list')).map(([inner]) => `find . -maxdepth 0 -exec bash -c ${quoted(inner, 1)} \\;`),
    fc.tuple(tie('cmd'), redirection).map(([c, r]) => c + r),
  ),
  list: fc.oneof(
    { depthSize: 'small' },
    tie('cmd'),
    fc.tuple(tie('cmd'), fc.constantFrom('; ', ' && ', ' || ', ' | ', ' & ', '\n'), tie('list')).map(([a, sep, b]) => a + sep + b),
  ),
})).list;

let sandbox: Sandbox | undefined;
const commands = fc.sample(command, { numRuns: COMMANDS, seed: SEED });
let runs: Promise<OracleRun>[] = [];

beforeAll(async () => {
  sandbox = await createSandbox({ programs: PROGRAMS });
  runs = pooled(commands, 3, (c) => runOracle(sandbox!, c));
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(runs);
  sandbox?.close();
}, 60_000);

describe('the oracle property on generated compositions', () => {
  it(`the engine accounts for every program ${COMMANDS} generated command lines run (seed ${SEED})`, async () => {
    const results = await Promise.all(runs);
    // The shortest failing lines first: the easiest to read.
    const failures = results
      .map((r, i) => ({ r, line: commands[i]! }))
      .filter(({ r }) => r.verdict.misses.length > 0)
      .sort((a, b) => a.line.length - b.line.length);
    const shown = failures.slice(0, 5).map(({ r, line }) => describeMisses(line, r.analysis, r.verdict));
    expect(shown.join('\n\n'), `${failures.length} of ${results.length} command lines ran programs the engine does not account for`).toBe('');
    // Not vacuous: nearly every line runs something, and the timeouts are rare.
    expect(results.filter((r) => r.run.ran.length > 0).length).toBeGreaterThan(COMMANDS * 0.9);
    expect(results.filter((r) => r.run.timedOut).length).toBe(0);
  }, 120_000);
});
