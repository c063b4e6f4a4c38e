"""Views of a game for learners: one seat against an opponent, and vectors of them.

- :mod:`~mancala_envs.views.single_agent_env`: ``SingleAgentEnv``, a Gymnasium env in which the learner
  plays one seat and a pluggable opponent the other.
- :mod:`~mancala_envs.views.opponents`: opponents by name, by agent or by callable.
- :mod:`~mancala_envs.views.vector_env`: Gymnasium vector envs on the batched engine.
- :mod:`~mancala_envs.views.sb3_vec_env`: the same as Stable-Baselines3 ``VecEnv``.
- :mod:`~mancala_envs.views.two_seat_env`: both seats learning at once (self-play on one batch).
- :mod:`~mancala_envs.views.text_view`: the position as a prompt for agents that read text, and their reply as a move.
"""
