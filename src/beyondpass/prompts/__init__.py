"""Prompt plans: which conditions (templates and workflows) each task is asked under."""

from beyondpass.prompts.plan import Condition, PromptPlan, PromptTemplate, builtin_plan, render

__all__ = ["Condition", "PromptPlan", "PromptTemplate", "builtin_plan", "render"]
