// Plots are vega-lite specs rendered to SVG in Node (no browser): the one renderer of the workbench.
// Vega and vega-lite (about a hundred modules) load at the first plot, not with every command.
import type { TopLevelSpec } from 'vega-lite';

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  return new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' }).toSVG();
}
