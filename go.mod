module github.com/jetstream-chaos/jetstream-chaos

go 1.26.0
