// The allocation service's public routes (services/allocation/README.md) through the store's
// client, typed by the generated allocation document. The gateway leaves empty lists and zero
// counts out, so every reader fills them in: the panel reads complete values.
import { ApiError, createApiClient, unwrap, type AllocationComponents, type ApiClient, type ClientOptions } from '@hangar/api-client';

type Wire = AllocationComponents['schemas'];
type Filled<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

export type TargetType = 'USER' | 'TAIL';
export type Allocation = Omit<Filled<Wire['v1Allocation']>, 'targetType'> & { targetType: TargetType };
export type PoolReport = Omit<Filled<Wire['v1AddOnAllocationReport']>, 'targetTypes' | 'termEnd'> & { targetTypes: TargetType[] };
export interface Report {
  ownerId: string;
  pools: PoolReport[];
}
export type AllocatedUser = Filled<Wire['v1AllocatedUser']>;
export type AllocatedTail = Filled<Wire['v1AllocatedTail']>;

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

export interface ListQuery {
  assignedAddOnCodes?: string;
  unassignedAddOnCodes?: string;
  filter?: string;
  page: number;
  size: number;
  sortDirection: 'asc' | 'desc';
}

export interface Target {
  targetType: TargetType;
  targetId: string;
  addOnCodes: string[];
}

const list = <T>(v: readonly T[] | undefined): T[] => (Array.isArray(v) ? [...v] : []);
const num = (v: number | undefined): number => (typeof v === 'number' ? v : 0);

function allocation(r: Wire['v1Allocation'] = {}): Allocation {
  return {
    addOnCodes: list(r.addOnCodes),
    expiredAddOnCodes: list(r.expiredAddOnCodes),
    targetId: r.targetId ?? '',
    targetOwnerId: r.targetOwnerId ?? '',
    targetType: r.targetType === 'TAIL' ? 'TAIL' : 'USER',
  };
}

/**
 * The allocation routes, and the catalogue's names of the licences (the pools and the
 * allocations name add-on codes; the owner reads "Business Pro", not "business_pro").
 */
export function allocationApi(client: ApiClient['allocation'], catalog?: ApiClient['catalog']) {
  return {
    /** Each add-on code's title in the catalogue; none known without the catalogue. */
    async names(signal?: AbortSignal): Promise<Record<string, string>> {
      if (!catalog) return {};
      const c = await catalog.availablePlans({}, signal);
      const out: Record<string, string> = {};
      for (const g of Object.values(c.groups)) for (const e of g.entries) if (e.title) out[e.addOnCode] = e.title;
      return out;
    },

    async report(signal?: AbortSignal): Promise<Report> {
      const r = await unwrap(client.GET('/account/api/subscription/allocation/report', { signal }));
      const pools = Object.values(r.addOnAllocationReports ?? {}).map(
        (p): PoolReport => ({
          addOnCode: p.addOnCode ?? '',
          licensingMethod: p.licensingMethod ?? '',
          bought: num(p.bought),
          assigned: num(p.assigned),
          free: num(p.free),
          expired: num(p.expired),
          isPlan: p.isPlan === true,
          targetTypes: list(p.targetTypes).filter((x): x is TargetType => x === 'USER' || x === 'TAIL'),
        }),
      );
      pools.sort((a, b) => Number(b.isPlan) - Number(a.isPlan) || a.addOnCode.localeCompare(b.addOnCode));
      return { ownerId: r.ownerId ?? '', pools };
    },

    async users(q: ListQuery, signal?: AbortSignal): Promise<Page<AllocatedUser>> {
      const query = { assignedAddOnCodes: q.assignedAddOnCodes, unassignedAddOnCodes: q.unassignedAddOnCodes, userFilters: q.filter, page: q.page, size: q.size, sortDirection: q.sortDirection };
      const r = await unwrap(client.GET('/account/api/users/by-allocation/', { params: { query: clean(query) }, signal }));
      return {
        items: list(r.users).map((u) => ({
          accountUuid: u.accountUuid ?? '',
          email: u.email ?? '',
          roles: list(u.roles),
          assignedAddOnCodes: list(u.assignedAddOnCodes),
          expiredAddOnCodes: list(u.expiredAddOnCodes),
        })),
        total: num(r.total),
        page: num(r.page),
        size: num(r.size) || q.size,
      };
    },

    async tails(q: ListQuery, signal?: AbortSignal): Promise<Page<AllocatedTail>> {
      const query = { assignedAddOnCodes: q.assignedAddOnCodes, unassignedAddOnCodes: q.unassignedAddOnCodes, tailFilters: q.filter, page: q.page, size: q.size, sortDirection: q.sortDirection };
      const r = await unwrap(client.GET('/account/api/subscription/allocation/tails', { params: { query: clean(query) }, signal }));
      return {
        items: list(r.tails).map((t) => ({ tailId: t.tailId ?? '', assignedAddOnCodes: list(t.assignedAddOnCodes), expiredAddOnCodes: list(t.expiredAddOnCodes) })),
        total: num(r.total),
        page: num(r.page),
        size: num(r.size) || q.size,
      };
    },

    async allocations(kind: 'users' | 'tails', ids: string[] = [], signal?: AbortSignal): Promise<Allocation[]> {
      // The parameter is present even when empty: it names which allocations are listed.
      const r = await unwrap(client.GET('/account/api/subscription/allocations/', { params: { query: { [kind]: ids.join(',') } }, signal }));
      return list(r.allocations).map(allocation);
    },

    async assign(t: Target): Promise<Allocation> {
      return allocation((await unwrap(client.POST('/account/api/subscription/allocation/assign', { body: t }))).allocation);
    },

    async unassign(t: Target): Promise<Allocation> {
      return allocation((await unwrap(client.POST('/account/api/subscription/allocation/unassign', { body: t }))).allocation);
    },

    async bulk(organizationId: string, assign: Target[], unassign: Target[] = []): Promise<Allocation[]> {
      const r = await unwrap(client.POST('/account/api/subscription/allocation/bulk-assign/{organizationId}', { params: { path: { organizationId } }, body: { allocations: assign, unassign } }));
      return list(r.allocations).map(allocation);
    },
  };
}

/** A query without its empty parameters (the routes read a missing one as "any"). */
function clean<T extends Record<string, string | number | undefined>>(q: T): Partial<T> {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}

export type AllocationApi = ReturnType<typeof allocationApi>;

export function createAllocationApi(options: ClientOptions = {}): AllocationApi {
  const client = createApiClient(options);
  return allocationApi(client.allocation, client.catalog);
}

/** The server's phrase for a pool too small (spec 001 §5). */
export const INSUFFICIENT = 'Insufficient addOn quantity';

/**
 * The message of a failed assignment (spec 001 §8): a 400 whose text carries the
 * insufficient-quantity phrase becomes 'Insufficient licenses for assignment.' with the
 * add-on code taken from the message; anything else shows the server's message.
 */
export function assignmentError(err: unknown): string {
  const e = err instanceof ApiError ? err : undefined;
  const text = e?.message ?? (err instanceof Error ? err.message : String(err));
  if ((e === undefined || e.status === 400) && text.includes(INSUFFICIENT)) {
    const code = /Insufficient addOn quantity(?:\s+for)?\s+([A-Za-z0-9_.-]+)/.exec(text)?.[1];
    return code ? `Insufficient licenses for assignment. ${code}` : 'Insufficient licenses for assignment.';
  }
  return text;
}

export const REPORT_ERROR = 'There was an error fetching your subscription allocations.';

/** The report's failure message (spec 001 §8): the server's own message takes precedence. */
export function reportError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.fieldErrors.length > 0) return err.fieldErrors.map((f) => f.message).join(' ');
    // A transport failure or a body without a message carries the client's own text.
    if (err.status !== 0 && !err.message.startsWith('request failed with status') && err.code !== 'internal') return err.message;
  }
  return REPORT_ERROR;
}
