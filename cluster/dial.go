package cluster

import "github.com/nats-io/nats.go"

// Dial is how clients authenticate to a cluster the toolkit did not start:
// credentials and TLS as nats.go options. It lives in memory only (a
// password must never reach run.json), so Node carries it as json:"-".
type Dial struct {
	opts []nats.Option
	desc string
}

// NewDial wraps client options with a description that holds no secret,
// e.g. "creds /etc/chaos.creds, TLS CA ca.pem".
func NewDial(desc string, opts ...nats.Option) *Dial {
	return &Dial{opts: opts, desc: desc}
}

// Options are the client options; none for a nil Dial.
func (d *Dial) Options() []nats.Option {
	if d == nil {
		return nil
	}
	return append([]nats.Option(nil), d.opts...)
}

// String describes the options without secrets.
func (d *Dial) String() string {
	if d == nil || d.desc == "" {
		return "none"
	}
	return d.desc
}

// ClientOption is the one option every client adds to its own to connect
// to n: the Dial's options, nothing on the clusters the toolkit starts.
func (n Node) ClientOption() nats.Option {
	opts := n.Dial.Options()
	return func(o *nats.Options) error {
		for _, f := range opts {
			if err := f(o); err != nil {
				return err
			}
		}
		return nil
	}
}

// ClientDial is how the toolkit's clients log in to a cluster it starts
// from c: nil without client authentication, else as ClientUser. A
// runtime makes it once per cluster and gives every node the same one
// (client.Connect refuses nodes whose Dials differ).
func (c Config) ClientDial() *Dial {
	if c.ClientUser == "" {
		return nil
	}
	return NewDial("user "+c.ClientUser, nats.UserInfo(c.ClientUser, c.ClientPassword))
}
