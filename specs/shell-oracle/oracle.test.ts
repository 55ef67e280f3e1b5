/**
 * The real-shell oracle over the adversarial corpus: every Bash command of
 * specs/cases/adversarial-*.yaml really runs in the sandbox (sandbox.ts), and the engine's
 * analysis must account for every program that ran (oracle.ts). A command the engine is known to
 * get wrong today is in KNOWN_GAPS and runs as an expected failure, so fixing the engine turns it
 * red until its entry is removed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adversarialCommands, needsZsh, programNames, type CorpusCommand } from './corpus.js';
import { describeMisses, runOracle, type OracleRun } from './oracle.js';
import { pooled } from './pool.js';
import { createSandbox, hostHasShell, type Sandbox } from './sandbox.js';

/** Notes of the cases whose command runs a program the engine does not account for, and why. */
const KNOWN_GAPS: Readonly<Record<string, string>> = {
};

const corpus = adversarialCommands();
const zsh = hostHasShell('zsh');
const runnable = corpus.filter((c) => zsh || !needsZsh(c.command));

let sandbox: Sandbox | undefined;
const runs = new Map<string, Promise<OracleRun>>();

beforeAll(async () => {
  sandbox = await createSandbox({ programs: programNames(corpus.map((c) => c.command)) });
  const commands = [...new Set(runnable.map((c) => c.command))];
  const results = pooled(commands, 3, (command) => runOracle(sandbox!, command));
  commands.forEach((command, i) => runs.set(command, results[i]!));
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(runs.values());
  sandbox?.close();
}, 60_000);

async function check(c: CorpusCommand): Promise<void> {
  const run = runs.get(c.command);
  if (run === undefined) throw new Error('the sandbox did not start: see the error of the first test');
  const { analysis, run: ran, verdict } = await run;
  expect(ran.timedOut, `\`${c.command}\` did not finish within the sandbox timeout`).toBe(false);
  if (verdict.misses.length > 0) throw new Error(describeMisses(c.command, analysis, verdict));
}

describe('the real-shell oracle over the adversarial corpus', () => {
  it('has the corpus to run, and every known gap names one of its cases', () => {
    expect(corpus.length).toBeGreaterThan(250);
    const notes = new Set(corpus.map((c) => c.note));
    expect(Object.keys(KNOWN_GAPS).filter((n) => !notes.has(n))).toEqual([]);
  });

  for (const c of corpus) {
    const name = `oracle: ${c.note}`;
    if (!zsh && needsZsh(c.command)) {
      // .ci/run installs zsh; without it the case cannot be checked, which is a failure, not a pass
      it(name, () => {
        throw new Error('zsh is not installed, so this case cannot run in a real zsh: apt-get install -y zsh');
      });
      continue;
    }
    const gap = KNOWN_GAPS[c.note];
    if (gap !== undefined) it.fails(`${name} (known gap: ${gap}; remove it from KNOWN_GAPS once this passes)`, () => check(c), 30_000);
    else it(name, () => check(c), 30_000);
  }
});
