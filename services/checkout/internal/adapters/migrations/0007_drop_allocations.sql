-- Issue 13: allocations belong to the allocation service (services/allocation), which
-- builds them from subscription-changed events; checkout asks it over gRPC
-- (GetOwnerAllocations) for a subscription's tail allocations and the add-ons its users
-- hold. Checkout's private copy, which nothing kept up to date, goes.
DROP TABLE IF EXISTS allocations;
ALTER TABLE subscriptions DROP COLUMN IF EXISTS allocated_add_ons;
