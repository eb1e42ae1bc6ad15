export * from './events';
export * from './analytics';
export * from './hooks';
