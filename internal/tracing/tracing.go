// Package tracing sets up OpenTelemetry traces for the server: off unless an
// OTLP endpoint is given, then spans are batched and sent over OTLP/HTTP,
// sampled by trace id at the given ratio (a request that arrives with a
// sampled parent is traced whatever the ratio, so a client's trace
// continues through the server).
package tracing

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config says where spans go.
type Config struct {
	// Endpoint is the OTLP/HTTP collector's base URL
	// (http://collector:4318); empty turns tracing off.
	Endpoint string
	// Ratio is the share of new traces sampled, from 0 to 1.
	Ratio float64
	// Version is the server's, recorded on every span's resource.
	Version string
	// BatchTimeout is how long spans wait to be sent together; 5 s when
	// zero.
	BatchTimeout time.Duration
}

// Check refuses a configuration that cannot work, naming the flag.
func (c Config) Check() error {
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--otlp-endpoint: want an http:// or https:// URL of an OTLP/HTTP collector, got %q", c.Endpoint)
		}
	}
	if c.Ratio < 0 || c.Ratio > 1 {
		return fmt.Errorf("--trace-sample-ratio: want a number from 0 to 1, got %v", c.Ratio)
	}
	return nil
}

// Provider returns the tracer provider the configuration asks for and a
// function that sends what is left and stops it. With no endpoint it is a
// provider whose spans cost next to nothing and go nowhere.
func Provider(c Config) (trace.TracerProvider, func(context.Context) error, error) {
	if err := c.Check(); err != nil {
		return nil, nil, err
	}
	if c.Endpoint == "" {
		return noop.NewTracerProvider(), func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(strings.TrimSuffix(c.Endpoint, "/")+"/v1/traces"))
	if err != nil {
		return nil, nil, fmt.Errorf("--otlp-endpoint: %w", err)
	}
	res := resource.NewSchemaless(semconv.ServiceName("cupid"), semconv.ServiceVersion(c.Version))
	batch := c.BatchTimeout
	if batch <= 0 {
		batch = 5 * time.Second
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(batch)),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.Ratio))),
		sdktrace.WithResource(res),
	)
	return tp, tp.Shutdown, nil
}
