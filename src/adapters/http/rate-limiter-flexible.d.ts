// The two files of rate-limiter-flexible the app uses, typed by the package's own declarations.
// Its index loads every store it supports (cluster, Redis, Mongo, SQL…), at every start.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export default RateLimiterRes;
}
