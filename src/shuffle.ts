/** Fisher-Yates shuffle in place with the given random source; returns the array. */
export function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** An index drawn from the distribution `p` with the uniform `u` (inverse CDF; the last index takes rounding). */
export function drawIndex(p: ArrayLike<number>, u: number): number {
  for (let i = 0; i < p.length; i++) if ((u -= p[i]) < 0) return i;
  return p.length - 1;
}

/** One element of a non-empty list, drawing from `random` only when there is a choice. */
export const pick = <T>(list: T[], random: () => number): T => (list.length === 1 ? list[0] : list[Math.floor(random() * list.length)]);
