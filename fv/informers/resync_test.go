package informers

import "time"

// informerResync is the shortest resync period client-go allows.
const informerResync = time.Second
