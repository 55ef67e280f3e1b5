export * from './diagnostics.js';
export * from './ir.js';
export * from './events.js';
export * from './shell/index.js';
export * from './match/index.js';
export * from './tools.js';
