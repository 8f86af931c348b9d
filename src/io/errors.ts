// What can go wrong for a user, as types. A user error is printed as its message alone (it names
// the file, line and field, or the flag, or the process holding a folder) and exits 1; a mistyped
// command line exits 2. Anything else thrown is a bug in this project: the command line prints its
// stack (cli/index.ts), so that it can be reported and fixed.

/** A mistake or a refusal the user can act on. */
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

/** A setting out of its range, or settings that contradict each other (from a flag or a file). */
export class SettingsError extends UserError {}

/** A run refused: a folder held by another process, a run of other settings, work that would be lost. */
export class RefusedError extends UserError {}

/** A mistyped command line (unknown command or flag, a flag given twice): exit 2. */
export class UsageError extends UserError {
  override readonly exitCode: number = 2;
}

export const isUserError = (e: unknown): e is UserError => e instanceof UserError;
