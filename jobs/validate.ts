// The job of `cache validate`, in a module of its own: the command loads what validating needs alone,
// not the other cache jobs' modules (the simulator, the fitter, the audit: about 50 ms of CPU to load).
import { cacheFilePath } from '../src/cache/load.ts';
import { formatIssue, validateSteps, type ValidateProgress } from '../src/cache/validate.ts';
import { onInterrupt, stoppableSteps } from '../src/io/interrupt.ts';

/**
 * Every error and warning of a cache and its journal (`file:line: field: problem`), and a one-line
 * summary. Stopped (Ctrl-C), it says how far it got: it only reads, so nothing was written.
 */
export async function validateJob(dir: string): Promise<{ text: string; valid: boolean }> {
  const progress: ValidateProgress = { lines: 0, read: 0, records: 0, checked: 0 };
  const unregister = onInterrupt({ say: () => [validateStopped(cacheFilePath(dir), progress)] });
  const { cache, issues } = await stoppableSteps(validateSteps(dir, progress)).finally(unregister);
  const lines = issues.map(formatIssue);
  const errors = issues.filter((i) => i.severity === 'error').length;
  const warnings = issues.length - errors;
  const plural = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
  if (errors)
    return {
      text: [...lines, `${plural(errors, 'problem')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}: ${cacheFilePath(dir)} is not a valid cache`].join(
        '\n',
      ),
      valid: false,
    };
  const j = cache!.journal;
  const journaled = j ? `; journal ${j.file}: ${j.responses} recorded responses, ${j.unanswered.size} calls without a journaled reply` : '';
  lines.push(
    `${cacheFilePath(dir)}: valid (${cache!.questions.length} questions, ${cache!.agents.length} agents, ` +
      `${cache!.responses.length} responses${journaled})${warnings ? `, ${plural(warnings, 'warning')}` : ''}`,
  );
  return { text: lines.join('\n'), valid: true };
}

function validateStopped(file: string, p: ValidateProgress): string {
  const done =
    p.records === 0
      ? `after reading ${p.read} of its ${p.lines} lines (loading's checks); the answer and token checks had not begun`
      : `after checking ${p.checked} of its ${p.records} records (answers, tokens; all ${p.lines} lines read)`;
  return `${file}: cache validate stopped ${done}; nothing was written (it only reads), and the cache is neither found valid nor invalid: a rerun checks it from the start`;
}
