// Loaded with `node --import` by tests/policy/deploy.test.ts: any attempt of this process to load
// TF.js (an ES import or a CommonJS require) fails, naming what asked for it.
import Module, { register } from 'node:module';

const forbidden = /^@tensorflow\//;
register(`data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (${forbidden}.test(specifier)) throw new Error('TF.js loaded: ' + specifier + ' from ' + context.parentURL);
  return next(specifier, context);
}`)}`);
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (forbidden.test(request)) throw new Error(`TF.js loaded: ${request} from ${parent?.filename}`);
  return load.call(this, request, parent, isMain);
};
