/**
 * Small synthetic inputs for the importer's tests, written for kplane (a made-up "shop" API
 * group in the layout of Kubernetes' sources), so the tests run without the upstream inputs.
 */
import type { ImportInputs } from './model.js';
import type { PackageSpec } from './packages.js';
import type { SwaggerDocument } from './swagger.js';

/** The two packages of the synthetic API. */
export const SHOP_SPECS: readonly PackageSpec[] = [
  { file: 'meta-v1', schemaPrefix: 'io.k8s.apimachinery.pkg.apis.meta.v1.', tree: 'apimachinery', dir: 'pkg/apis/meta/v1', proto: true },
  { file: 'shop-v1', schemaPrefix: 'io.k8s.api.shop.v1.', tree: 'api', dir: 'shop/v1', proto: true },
];

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const SHOP = 'io.k8s.api.shop.v1.';
const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

/** The synthetic swagger document (plus one definition of a package outside the model). */
export function shopSwagger(): SwaggerDocument {
  return {
    definitions: {
      [`${META}ObjectMeta`]: { type: 'object', properties: { name: { type: 'string' }, uid: { type: 'string' } } },
      [`${META}Time`]: { type: 'string', format: 'date-time' },
      [`${SHOP}Part`]: {
        type: 'object',
        required: ['name'],
        properties: { data: { type: 'string', format: 'byte' }, name: { type: 'string' } },
        'x-kubernetes-map-type': 'atomic',
      },
      [`${SHOP}Widget`]: {
        type: 'object',
        required: ['spec'],
        properties: {
          apiVersion: { type: 'string' },
          kind: { type: 'string' },
          metadata: ref(`${META}ObjectMeta`),
          spec: ref(`${SHOP}WidgetSpec`),
        },
        'x-kubernetes-group-version-kind': [{ group: 'shop.example', kind: 'Widget', version: 'v1' }],
      },
      [`${SHOP}WidgetSpec`]: {
        type: 'object',
        required: ['size'],
        properties: {
          colour: { type: 'string' },
          count: { type: 'integer', format: 'int32' },
          created: ref(`${META}Time`),
          extra: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          parts: {
            type: 'array',
            items: ref(`${SHOP}Part`),
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            'x-kubernetes-patch-strategy': 'merge',
            'x-kubernetes-patch-merge-key': 'name',
          },
          path: { type: 'string' },
          size: { type: 'integer', format: 'int32' },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
          url: { type: 'string' },
        },
      },
      'io.k8s.other.v1.Unrelated': { type: 'object', properties: { x: { type: 'string' } } },
    },
  };
}

const META_PROTO = `syntax = "proto2";
package k8s.io.apimachinery.pkg.apis.meta.v1;
message ObjectMeta {
  optional string name = 1;
  optional string uID = 2;
}
message Time {
  optional int64 seconds = 1;
  optional int32 nanos = 2;
}
`;

/** The synthetic generated.proto of the shop package. */
export const SHOP_PROTO = `syntax = "proto2";
package k8s.io.api.shop.v1;
import "k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto";
message ExtraValue {
  repeated string items = 1;
}
message Part {
  optional string name = 1;
  optional bytes data = 2;
}
message Source {
  optional string url = 1;
  optional string path = 2;
}
message Widget {
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional WidgetSpec spec = 2;
}
message WidgetSpec {
  optional int32 size = 1;
  optional string colour = 2;
  optional int32 count = 3;
  repeated Part parts = 4;
  map<string, string> labels = 5;
  map<string, ExtraValue> extra = 6;
  repeated string tags = 7;
  optional Source source = 8;
  optional .k8s.io.apimachinery.pkg.apis.meta.v1.Time created = 9;
}
`;

const META_GO = `/*
A licence header in a block comment.
*/

package v1

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

type TypeMeta struct {
	Kind string \`json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"\`
	APIVersion string \`json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"\`
}

type ObjectMeta struct {
	Name string \`json:"name,omitempty" protobuf:"bytes,1,opt,name=name"\`
	UID types.UID \`json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid,casttype=k8s.io/kubernetes/pkg/types.UID"\`
}

type Time struct {
	time.Time \`protobuf:"-"\`
}

func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return nil
}
`;

/** The synthetic Go source of the shop package. */
export const SHOP_GO = `package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widget is a made-up kind.
type Widget struct {
	metav1.TypeMeta \`json:",inline"\`
	// +optional
	metav1.ObjectMeta \`json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"\`

	Spec WidgetSpec \`json:"spec" protobuf:"bytes,2,opt,name=spec"\`
}

// +enum
type Colour string

const (
	ColourRed Colour = "red"
	// a comment between constants
	ColourBlue Colour = "blue"
	notAColour = "green"
)

type WidgetSpec struct {
	Size int32 \`json:"size" protobuf:"varint,1,opt,name=size"\`
	// +optional
	// +default=ref(ColourRed)
	Colour Colour \`json:"colour,omitempty" protobuf:"bytes,2,opt,name=colour,casttype=Colour"\`
	// Paths like 'parts/*' and '*/name' in a line comment.
	Count *int32 \`json:"count,omitempty" protobuf:"varint,3,opt,name=count"\`
	Parts []Part \`json:"parts,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,4,rep,name=parts"\`
	Labels map[string]string \`json:"labels,omitempty" protobuf:"bytes,5,rep,name=labels"\`
	Extra map[string]ExtraValue \`json:"extra,omitempty" protobuf:"bytes,6,rep,name=extra"\`
	Tags []Colour \`json:"tags" protobuf:"bytes,7,rep,name=tags"\`
	Source \`json:",inline" protobuf:"bytes,8,opt,name=source"\`
	Created metav1.Time \`json:"created,omitempty" protobuf:"bytes,9,opt,name=created"\`
}

type ExtraValue []string

type Source struct {
	// +default="https"
	URL string \`json:"url,omitempty" protobuf:"bytes,1,opt,name=url"\`
	Path *string \`json:"path,omitempty" protobuf:"bytes,2,opt,name=path"\`
}

type Part struct {
	Name string \`json:"name" protobuf:"bytes,1,opt,name=name"\`
	Data []byte \`json:"data,omitempty" protobuf:"bytes,2,opt,name=data"\`
}

func (p Part) String() string {
	return "{" + p.Name + "}"
}
`;

const TYPES_GO = `package types

type UID string
`;

/** The complete synthetic inputs, with optional replacements of the shop package's texts. */
export function shopInputs(overrides: { proto?: string; go?: string; swagger?: SwaggerDocument } = {}): ImportInputs {
  return {
    swagger: overrides.swagger ?? shopSwagger(),
    protos: new Map([
      ['meta-v1', META_PROTO],
      ['shop-v1', overrides.proto ?? SHOP_PROTO],
    ]),
    goSources: new Map([
      ['k8s.io/apimachinery/pkg/apis/meta/v1', [META_GO]],
      ['k8s.io/api/shop/v1', [overrides.go ?? SHOP_GO]],
      ['k8s.io/apimachinery/pkg/types', [TYPES_GO]],
    ]),
  };
}
