export * from './records.js';
export * from './scope.js';
export * from './order.js';
export * from './limits.js';
export * from './inputs.js';
export * from './copy.js';
export * from './checkpoints.js';
export * from './checkpoint-inputs.js';
