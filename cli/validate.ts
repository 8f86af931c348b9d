// `cache validate <dir>`'s handler, in a module of its own: the `cache` command's (commands/cache.ts)
// and the command line's run without yargs (index.ts) are this one.
/** Every error and warning of the cache in `dir` printed; exit status 1 when it is not valid. */
export async function validateCommand(dir: string): Promise<void> {
  const { validateJob } = await import('../jobs/validate.ts');
  const { text, valid } = await validateJob(dir);
  console.log(text);
  if (!valid) process.exitCode = 1;
}
