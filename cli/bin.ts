#!/usr/bin/env node
import { frameCrashes, hookCrashEnding, internalErrorText } from './crash.js';
import { INTERNAL } from './exit-codes.js';
import { main } from './main.js';

const argv = process.argv.slice(2);
// hook mode fails closed (an agent reads 70 as "no opinion"); every other command ends with 70
const hookMode = argv[0] === 'hook';
frameCrashes(hookMode ? hookCrashEnding(argv.slice(1)) : undefined);

main(argv, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (hookMode) hookCrashEnding(argv.slice(1))(err);
    process.stderr.write(internalErrorText(err));
    process.exitCode = INTERNAL;
  },
);
