// Package changes carries the changes of a product to its callers: the
// change feed (Feed: events recorded in the transaction of their change,
// read by cursor through FeedAPI) and webhooks (Endpoints and EndpointAPI:
// the endpoints of an owner; Sender: the job that delivers each event).
// Deliveries are signed as the Standard Webhooks specification
// (https://www.standardwebhooks.com) describes and sent only to addresses
// that are safe to call from inside the platform (Policy, Client).
//
// A product names its event types and audiences and records its events
// with Feed.Record in its own transaction; the package imports no product.
package changes
