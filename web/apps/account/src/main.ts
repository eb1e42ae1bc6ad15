// Module Federation needs an async boundary: the federation runtime must set up
// the shared scope (React as a singleton) before any shared module is evaluated.
import('./bootstrap');
export {};
