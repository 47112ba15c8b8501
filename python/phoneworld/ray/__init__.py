"""PhoneWorld on a Ray cluster (`pip install 'phoneworld[ray]'`).

- `run_eval`, `run_rollouts`: `phoneworld eval` / `rollouts` spread over the cluster in
  chunks; the same report and files, byte for byte, as on one machine. Also
  `phoneworld.evaluate(agent, backend="ray")`, `python -m phoneworld.ray eval|rollouts
  --address ADDRESS`, and `phoneworld eval|rollouts --ray ADDRESS`.
- `RayVectorEnv`: a Gymnasium `VectorEnv` of phones in actors across the cluster, with
  EnvPool-style `send`/`recv`.
- `RemoteEnv`, `mixed_pool`, `phone_resource`: envs in actors placed on the host they need
  (a real phone's), and a `MixedPool` of them.
- `env_creator`, `register_rllib`: envs made on workers from plain config.
"""

try:
    import ray as _ray  # noqa: F401
except ImportError as err:  # pragma: no cover (the extra is installed in the tests)
    raise ImportError("phoneworld.ray needs Ray: pip install 'phoneworld[ray]'") from err

from .pool import RayVectorEnv, VectorEnvActor
from .registration import env_creator, register_rllib
from .remote import EnvActor, RemoteEnv, mixed_pool, phone_resource
from .runs import RunInterrupted, connect, run_eval, run_rollouts

__all__ = [
    "EnvActor",
    "RayVectorEnv",
    "RemoteEnv",
    "RunInterrupted",
    "VectorEnvActor",
    "connect",
    "env_creator",
    "mixed_pool",
    "phone_resource",
    "register_rllib",
    "run_eval",
    "run_rollouts",
]
