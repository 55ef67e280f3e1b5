/**
 * Testing a compiled policy, as data a host renders its own way: fixture files (readFixtures,
 * evaluateFixtures), the policy's `test` cases and fixture expectations run with or without hooks
 * (runPolicyTests), and which rules those cases exercised (computeCoverage, coverageOfCases).
 * Everything here needs only the engine: loading and compiling policy files is the caller's.
 */
export {
  MAX_FIXTURE_LINE,
  FixtureReadError,
  readFixtures,
  fixtureEvent,
  fixtureLineSpan,
  evaluateFixtures,
  type FixtureInput,
  type FixtureItem,
  type FixtureResult,
  type EvaluateFixturesOptions,
} from './fixtures.js';
export {
  runPolicyTests,
  runPolicyTestCase,
  runFixtureFile,
  countCases,
  parseExpectReason,
  type CaseStatus,
  type CaseResult,
  type CaseCounts,
  type PolicyTestOptions,
  type PolicyTestRun,
} from './run.js';
export { computeCoverage, coverageOfCases, type CoverageCase, type CoverageRow, type CoverageReport, type CoverageOptions } from './coverage.js';
