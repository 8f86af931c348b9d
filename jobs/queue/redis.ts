// The Redis a grid's queue lives on, named by one URL: `redis://[:password@]host:port/db`, or
// `rediss://` for TLS. The password may be in the URL or in CPP_REDIS_PASSWORD (a command line is
// visible to other users of a machine). Neither the password nor the URL holding it is ever
// printed: every line the coordinator and the workers print goes through `redact`.
import { Redis } from 'ioredis';
import { SettingsError } from '../../src/io/errors.ts';

/** The BullMQ queue of grid cells (its keys are `bull:cpp-cells:*` in the URL's database). */
export const QUEUE = 'cpp-cells';
export const PASSWORD_ENV = 'CPP_REDIS_PASSWORD';

export interface QueueUrl {
  url: string;
  password?: string;
  /** The URL with its password shown as ***: what logs and reports name. */
  label: string;
  /** The text with the URL and the password replaced by `label` and ***. */
  redact: (text: string) => string;
}

export function parseQueueUrl(raw: string, env: NodeJS.ProcessEnv = process.env): QueueUrl {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new SettingsError('--queue: not a URL; expected redis://[:password@]host:port/db or rediss://...');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new SettingsError(`--queue: scheme ${u.protocol} is not redis: or rediss:`);
  const password = (u.password ? decodeURIComponent(u.password) : undefined) ?? (env[PASSWORD_ENV] || undefined);
  const secrets = [...new Set([u.password, password].filter((s): s is string => !!s))];
  if (u.password) u.password = '***';
  const label = u.toString();
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join('***'), text.split(raw).join(label));
  return { url: raw, password, label, redact };
}

/** A connection as BullMQ wants it (commands wait through reconnects); its errors are said, redacted, once each. */
export function connect(q: QueueUrl, say: (line: string) => void): Redis {
  const redis = new Redis(q.url, { maxRetriesPerRequest: null, ...(q.password ? { password: q.password } : {}) });
  const seen = new Set<string>();
  redis.on('error', (e: Error) => {
    if (seen.has(e.message)) return;
    seen.add(e.message);
    say(`redis ${q.label}: ${e.message} (retrying)`);
  });
  return redis;
}
