/**
 * Claude Code's reading of a file's first lines (the `HeadReader` of ../common/transcript.ts): a
 * `type: "user"` or `"assistant"` line with a `message` object is Claude Code's for sure; any
 * other line with a `sessionId` may be. The session id is the first `sessionId`, the working
 * directory the first non-empty `cwd`, the permission mode the first a user or assistant line
 * records; the file is a subagent's (sidechain) when every user or assistant line seen is a
 * sidechain line. Complete once all three of session, working directory and a main line are seen.
 */
import { isObject, type HeadReader, type HeadVerdict, type SessionFacts } from '../common/transcript.js';

export function claudeHeadReader(): HeadReader {
  let session: string | undefined;
  let cwd: string | undefined;
  let permissionMode: string | undefined;
  let sawMain = false;
  let sawSidechain = false;
  return {
    line(value: Record<string, unknown>): HeadVerdict {
      const type = value['type'];
      let verdict: HeadVerdict;
      if ((type === 'user' || type === 'assistant') && isObject(value['message'])) {
        verdict = 'sure';
        if (value['isSidechain'] === true) sawSidechain = true;
        else sawMain = true;
        if (permissionMode === undefined && typeof value['permissionMode'] === 'string') permissionMode = value['permissionMode'];
      } else if (typeof value['sessionId'] === 'string') {
        verdict = 'maybe';
      }
      if (session === undefined && typeof value['sessionId'] === 'string') session = value['sessionId'];
      if (cwd === undefined && typeof value['cwd'] === 'string' && value['cwd'] !== '') cwd = value['cwd'];
      return verdict;
    },
    facts(): SessionFacts {
      const facts: SessionFacts = { sidechain: sawSidechain && !sawMain };
      if (session !== undefined) facts.session = session;
      if (cwd !== undefined) facts.cwd = cwd;
      if (permissionMode !== undefined) facts.permissionMode = permissionMode;
      return facts;
    },
    complete: () => session !== undefined && cwd !== undefined && sawMain,
  };
}
