export * from './cookies';
export * from './location';
export * from './salesMode';
export * from './kiosk';
export * from './http';
export * from './cardReader';
