// What can go wrong for a user, as types. A user error is printed as its message alone (it names
// the file, line and field, or the flag, or the process holding a folder) and exits 1; a mistyped
// command line exits 2. Anything else thrown is a bug in this project: the command line prints its
// stack and exits BUG_EXIT (reportError, used by cli/index.ts and the training child), so that it
// can be reported and fixed.

/**
 * A mistake or a refusal the user can act on. Thrown as itself for what the world outside did:
 * a live endpoint that refused a call or kept failing, a file system that refused a write.
 */
export class UserError extends Error {
  /** The process exit status the command line ends with. */
  readonly exitCode: number = 1;
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input: a file, line or field that does not read, parse or check (a cache, a config, a checkpoint). */
export class InputError extends UserError {}

/** A setting out of its range, or settings that contradict each other (from a flag or a file), or one this machine cannot run. */
export class SettingsError extends UserError {}

/** A run refused: a folder held by another process, a run of other settings, work that would be lost. */
export class RefusedError extends UserError {}

/** A mistyped command line (unknown command or flag, a flag given twice): exit 2. */
export class UsageError extends UserError {
  override readonly exitCode: number = 2;
}

export const isUserError = (e: unknown): e is UserError => e instanceof UserError;

/** The exit status of a bug (EX_SOFTWARE of BSD's sysexits.h): apart from 1 and 2, so that a script can tell it from a user error. */
export const BUG_EXIT = 70;

/**
 * An error of the operating system as Node raises it (a full disk, a permission denied): its message
 * names the call and the path (`EACCES: permission denied, mkdir '/data/runs'`), and it is not a bug.
 */
export const isSystemError = (e: unknown): e is NodeJS.ErrnoException =>
  e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';

/** The first line of what `e` says: why a module, a backend or a service did not load, for a message of ours. */
export const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0];

/**
 * `e` with a secret cut out of its message and stack, and out of its causes' (`redact` does the
 * cutting), its type kept: a user error stays one, a bug keeps its stack.
 */
export function redacted(e: unknown, redact: (text: string) => string): unknown {
  if (!(e instanceof Error)) return typeof e === 'string' ? redact(e) : e;
  e.message = redact(e.message);
  if (e.stack !== undefined) e.stack = redact(e.stack);
  if (e.cause !== undefined) e.cause = redacted(e.cause, redact);
  return e;
}

/** The stack of a bug, with the stacks of what caused it. */
export function stackOf(e: unknown): string {
  if (!(e instanceof Error)) return `a value that is not an Error was thrown: ${String(e)}`;
  const stack = e.stack ?? `${e.name}: ${e.message}`;
  return e.cause === undefined ? stack : `${stack}\ncaused by: ${stackOf(e.cause)}`;
}

/** What a user error (or an error of the operating system) says; undefined for a bug. */
export const userMessage = (e: unknown): string | undefined => (e instanceof UserError || isSystemError(e) ? e.message : undefined);

/**
 * Say why a command failed, on stderr (`print`), and return its exit status. A user error, or an
 * error of the operating system, is its message alone; anything else is a bug: its stack, and a
 * line asking to report it.
 */
export function reportError(e: unknown, print: (text: string) => void = console.error): number {
  const said = userMessage(e);
  if (said !== undefined) {
    print(said);
    return e instanceof UserError ? e.exitCode : 1;
  }
  print(stackOf(e));
  print('This is a bug in cpp-workbench: please report it, with the stack trace above and the command that was run.');
  return BUG_EXIT;
}

/**
 * One error for several failed runs (`message` names each): a user error when every one of them
 * is, else a bug that carries the first bug as its cause, so that its stack is printed.
 */
export function failedRuns(message: string, errors: unknown[]): Error {
  const bug = errors.find((e) => userMessage(e) === undefined);
  return bug === undefined ? new UserError(message) : new Error(message, { cause: bug });
}
