// A command line as this project says it back: in a stop's "to continue" line, and in provenance.
/** Words as a POSIX shell reads them back: quoted where they hold anything but plain characters. */
export const shellWords = (words: string[]) => words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');

/**
 * A command line as a continue line and provenance keep it: credentials in URLs (`redis://:pass@host`,
 * `https://user:key@host`) become `***`, so no run folder or report holds a password.
 */
export const redactCredentials = (args: string[]) => args.map((a) => a.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1***@'));
