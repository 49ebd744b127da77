package main

// The workloads' report views register themselves with package reports;
// importing them here is what gives chaos run and chaos report their pages.
import (
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/catchup/catchupview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/kvupdate/kvupdateview"
	_ "github.com/jetstream-chaos/jetstream-chaos/workloads/queue/queueview"
)
