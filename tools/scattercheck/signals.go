package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// cutSignals cut a gate, bench or dashboard run short, with its reports.
var cutSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// catchable are the cutSignals the process does not ignore: a handler
// would make an ignored one (nohup's SIGHUP, a background job's SIGINT)
// cut the run short where it ran on before.
func catchable() []os.Signal {
	var sigs []os.Signal
	for _, s := range cutSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// cutContext is done on the first of the catchable cutSignals.
func cutContext(parent context.Context) (context.Context, context.CancelFunc) {
	sigs := catchable()
	if len(sigs) == 0 {
		return context.WithCancel(parent) // Notify of no signal would relay every one
	}
	return signal.NotifyContext(parent, sigs...)
}

// notifyCut relays the catchable cutSignals to c.
func notifyCut(c chan<- os.Signal) {
	if sigs := catchable(); len(sigs) > 0 {
		signal.Notify(c, sigs...)
	}
}
