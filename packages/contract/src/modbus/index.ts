export * from './types';
export * from './crc';
export * from './frames';
export * from './codec';
export * from './planner';
export * from './formula';
