"""``envpool.minigrid``: EnvPool's MiniGrid helper, ``decode_mission`` (the mission text of the
``mission`` observations), for code written for EnvPool; envfleet's own name for it is
``envfleet.families.minigrid.decode_mission``. A package, as EnvPool's is (code written for
EnvPool imports modules below it)."""

from envfleet.families.minigrid import decode_mission

__all__ = ["decode_mission"]
