// TensorBoard event files, so that `tensorboard --logdir checkpoints/` shows a run's scalars.
// An event file is a sequence of records, each
//   uint64 length | uint32 masked CRC32C(length bytes) | data | uint32 masked CRC32C(data)
// (little-endian; masked(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8), whose data is one serialized
// `Event` message. The messages below are the subset of TensorFlow's event.proto and summary.proto
// that scalars need, with TensorFlow's field numbers.
import CRC32C from 'crc-32/crc32c.js';
import { closeSync, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { appendWhole } from './io/atomic.ts';

const root = protobuf.Root.fromJSON({
  nested: {
    tensorboard: {
      nested: {
        Event: {
          oneofs: { what: { oneof: ['fileVersion', 'summary', 'sessionLog'] } },
          fields: {
            wallTime: { type: 'double', id: 1 },
            step: { type: 'int64', id: 2 },
            fileVersion: { type: 'string', id: 3 },
            summary: { type: 'Summary', id: 5 },
            sessionLog: { type: 'SessionLog', id: 7 },
          },
        },
        Summary: {
          fields: { value: { rule: 'repeated', type: 'Value', id: 1 } },
          nested: {
            Value: {
              oneofs: { value: { oneof: ['simpleValue'] } },
              fields: { tag: { type: 'string', id: 1 }, simpleValue: { type: 'float', id: 2 } },
            },
          },
        },
        SessionLog: {
          fields: { status: { type: 'SessionStatus', id: 1 }, checkpointPath: { type: 'string', id: 2 }, msg: { type: 'string', id: 3 } },
          nested: { SessionStatus: { values: { STATUS_UNSPECIFIED: 0, START: 1, STOP: 2, CHECKPOINT: 3 } } },
        },
      },
    },
  },
});
/** TensorFlow's `Event` message (wall_time, step, file_version | summary | session_log). */
export const Event = root.lookupType('tensorboard.Event');

/** The CRC of TensorFlow's record framing: CRC32C, rotated and offset so data holding CRCs stays checkable. */
const maskedCrc32c = (data: Uint8Array) => {
  const crc = CRC32C.buf(data) >>> 0;
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
};

function record(data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length + 4);
  out.writeBigUInt64LE(BigInt(data.length), 0);
  out.writeUInt32LE(maskedCrc32c(out.subarray(0, 8)), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return out;
}

interface EventWriter {
  file: string;
  /** One summary event at `step` holding every finite value as a scalar under its tag. */
  scalars(step: number, values: Record<string, number>, wallTime?: number): void;
  close(): void;
}

/**
 * A new event file in `dir` (TensorBoard reads every `*tfevents*` file of a run folder in order).
 * `resumeAt`, for a resumed run: the first step this writer logs; a SessionLog START there makes
 * TensorBoard drop the steps from `resumeAt` on that an interrupted earlier session had written.
 */
export function eventWriter(dir: string, resumeAt?: number): EventWriter {
  const now = () => Date.now() / 1000;
  const file = join(dir, `events.out.tfevents.${Math.floor(now())}.${hostname()}.${process.pid}`);
  const fd = openSync(file, 'a');
  const write = (event: Record<string, unknown>) => appendWhole(fd, file, record(Event.encode(Event.fromObject(event)).finish()), false);
  write({ wallTime: now(), step: 0, fileVersion: 'brain.Event:2' });
  if (resumeAt !== undefined) write({ wallTime: now(), step: resumeAt, sessionLog: { status: 'START' } });
  return {
    file,
    scalars(step, values, wallTime = now()) {
      const value = Object.entries(values)
        .filter(([, v]) => Number.isFinite(v))
        .map(([tag, simpleValue]) => ({ tag, simpleValue }));
      write({ wallTime, step, summary: { value } });
    },
    close: () => closeSync(fd),
  };
}
