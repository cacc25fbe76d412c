package syncer

import (
	"errors"

	"github.com/kubesync/kubesync/resources"
)

// simBreakBrokerConfirms: the Broker behind the other consumer drops the
// syncer's confirmations, as it did before it forwarded them (the other
// consumer breaks it: see sim_broker_spec_test.go).
const simBreakBrokerConfirms = "the Broker drops confirmations"

// SimBreakBrokerConfirms is simBreakBrokerConfirms, for the table of broken rules.
const SimBreakBrokerConfirms = simBreakBrokerConfirms

// SimBrokerDiffers is wrapped by the other consumer's check when a Store
// behind a Broker, or a subscriber, heard other than a Store the syncer fed:
// the breach is the rule "broker", not "store".
var SimBrokerDiffers = errors.New("behind the Broker")

// extraRule is the rule the other consumer's check broke.
func extraRule(err error) simRule {
	if errors.Is(err, SimBrokerDiffers) {
		return ruleBroker
	}
	return ruleStore
}

// OnConfirmed hands the syncer's confirmations on to the other consumer.
func (c *simConsumer) OnConfirmed(typeName, revision string) {
	if h, ok := c.extra.(ConfirmationHandler); ok {
		h.OnConfirmed(typeName, revision)
	}
}

// OnTypes hands the syncer's types on to the other consumer.
func (c *simConsumer) OnTypes(types []resources.Type) {
	if h, ok := c.extra.(TypesHandler); ok {
		h.OnTypes(types)
	}
}

// SimTypes are the simulated agent's types.
func SimTypes() []resources.Type {
	types, _, _ := simTypes()
	return types
}
