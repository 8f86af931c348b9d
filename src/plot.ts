// Plots are vega-lite specs rendered to SVG in Node (no browser): the one renderer of the workbench.
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

export function renderSvg(spec: TopLevelSpec): Promise<string> {
  return new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' }).toSVG();
}
