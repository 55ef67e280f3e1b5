/** Registers the built-in agents' hook protocols before each test file (see vitest.config.ts). */
import '../bridges/hook.js';
