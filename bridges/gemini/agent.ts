/**
 * Gemini CLI as dshpolicy knows it: the `Agent` of bridges/agent.ts, assembled from this folder.
 * dshpolicy imports no Gemini CLI hooks configuration; it reads and writes its policy language and
 * answers its `BeforeTool` hook.
 */
import type { Agent } from '../agent.js';
import { geminiHookAgent } from './hook-agent.js';
import { exportGeminiPolicy } from './export.js';
import { importGeminiPolicy } from './policy.js';

export const gemini: Agent = {
  name: 'gemini',
  title: 'Gemini CLI',
  hookMode: geminiHookAgent,
  permissions: [{ what: 'policy', import: importGeminiPolicy }],
  export: { policy: (rules, opts) => exportGeminiPolicy(rules, opts) },
};
