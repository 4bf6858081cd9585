import { lazyBuiltin } from './lazyBuiltin';

module.exports = lazyBuiltin(() => require('node:net') as typeof import('node:net'));
