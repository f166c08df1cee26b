export * from './records.js';
export * from './scope.js';
export * from './order.js';
export * from './limits.js';
export * from './inputs.js';
export * from './copy.js';
