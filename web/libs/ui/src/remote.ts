/**
 * The contract between the shell and a remote's exposed `./Module`: the shell
 * renders `<Module {...props} />` for the routes that remote owns. Remotes read
 * nothing else from the shell, so they run the same standalone.
 */
export interface RemoteModuleProps {
  /** The route pattern that matched, e.g. '/buy' or '/product/cart/:cartId'. */
  route: string;
  /** Route parameters, e.g. { cartId: 'abc' }. */
  params: Readonly<Record<string, string | undefined>>;
  /** Client-side navigation inside the shell (falls back to a full load standalone). */
  navigate?: (to: string) => void;
}

export type RemoteModule = (props: RemoteModuleProps) => unknown;
