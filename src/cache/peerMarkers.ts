// How a revision prompt of a recorded debate shows the peers' answers: the markers of the known
// debate code bases (or the user's --peer-marker), the answers they find, and how many were found
// in an import (src/cache/importDu.ts; the simulator server reads its clients' prompts with them too).
import { SettingsError } from '../io/errors.ts';

/** How the peer answers shown in revision prompts were recognised. */
export interface PeerStats {
  /** User messages before a round-2+ response. */
  revisionPrompts: number;
  /** Of those, the ones where no marker found a peer answer. */
  withoutPeers: number;
  /** Peer answers found. */
  shown: number;
  /** The markers tried, as text. */
  markers: string[];
}

export const peerSummary = (p: PeerStats) =>
  `Peer answers recognised in revision prompts: ${p.shown} in ${p.revisionPrompts - p.withoutPeers} of ${p.revisionPrompts} prompts; ` +
  `${p.withoutPeers} held no recognised peer answer (markers: ${p.markers.join(' | ')})`;

/**
 * How the known debate code bases mark each peer answer in a revision prompt; an answer runs from
 * its marker to the next marker, less the closing ``` fence and what follows it.
 */
export const PEER_MARKERS: { source: string; marker: RegExp }[] = [
  { source: "Du et al. (MATH, GSM8K, MMLU), DyLAN's recorded MATH debates", marker: /One agent solution: ```/g },
  { source: 'Du et al. (arithmetic, biographies)', marker: /One agent response: ```/g },
  { source: 'DyLAN (code)', marker: /Agent solution \d+: ```/g },
];

/**
 * A user's peer marker (`--peer-marker REGEX`): a regex matching the start of each peer answer, as
 * the built-in ones do; or, with a capture group, matching a whole peer answer (the group is its text).
 */
export function peerMarker(source: string): RegExp {
  try {
    return new RegExp(source, 'g');
  } catch (e) {
    throw new SettingsError(`--peer-marker: '${source}' is not a valid regular expression: ${(e as Error).message}`);
  }
}

/** The peer answers a revision prompt shows, in order, found by the given markers. */
export function shownSolutions(message: string, markers: RegExp[] = PEER_MARKERS.map((p) => p.marker)): string[] {
  const found = markers
    .flatMap((marker) => [...message.matchAll(new RegExp(marker.source, marker.flags.includes('g') ? marker.flags : `${marker.flags}g`))])
    .filter((m) => m[0].length > 0)
    .sort((a, b) => a.index - b.index);
  return found.map((m, i) => {
    if (m[1] !== undefined) return m[1].trim();
    const part = message.slice(m.index + m[0].length, i + 1 < found.length ? found[i + 1].index : message.length);
    const end = part.lastIndexOf('```');
    return (end >= 0 ? part.slice(0, end) : part).trim();
  });
}
