import { lazyBuiltin } from './lazyBuiltin';

module.exports = lazyBuiltin(() => require('node:child_process') as typeof import('node:child_process'));
