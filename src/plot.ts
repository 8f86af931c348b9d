// Plots are vega-lite specs rendered to SVG in Node (no browser): the one renderer of the workbench,
// and the one palette: Okabe and Ito's eight colours, which readers with any common colour-vision
// deficiency tell apart, each category also drawn with its own shape (points) or dash (lines), so
// that no two categories look alike, in colour or in grey.
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export const VEGA_LITE_SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';

/** Okabe-Ito, ordered so that the first categories (policies) get the strongest; yellow, weak on white, late. */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#000000', '#F0E442'];
/** Point shapes, seven against eight colours: the pair (colour, shape) differs for 56 categories. */
export const SHAPES = ['circle', 'square', 'triangle-up', 'diamond', 'triangle-down', 'cross', 'triangle-left'];
/** Line dashes, five against eight colours: 40 categories apart. */
export const DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
  [8, 3, 2, 3],
  [1, 3],
];

/** The colour, shape and dash of each of `names`, in order (vega-lite scale ranges). */
export function categoryStyles(names: string[]) {
  return {
    colors: names.map((_, i) => OKABE_ITO[i % OKABE_ITO.length]),
    shapes: names.map((_, i) => SHAPES[i % SHAPES.length]),
    dashes: names.map((_, i) => DASHES[i % DASHES.length]),
  };
}

export function renderSvg(spec: TopLevelSpec): Promise<string> {
  return new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' }).toSVG();
}
